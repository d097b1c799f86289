import sys

from agent.wording_cli import main

sys.exit(main())
