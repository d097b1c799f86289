import sys

from agent.cli.wording import main

sys.exit(main())
