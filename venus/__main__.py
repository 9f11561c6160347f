import sys

from venus.cli import main

sys.exit(main())
