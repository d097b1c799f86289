import sys

from knowledge.cli import main

sys.exit(main())
