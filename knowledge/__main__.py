import sys

from agent.policy_cli import main

sys.exit(main())
