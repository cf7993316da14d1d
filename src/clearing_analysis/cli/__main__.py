"""`python -m clearing_analysis.cli`: the same entry point as the console script."""

from clearing_analysis.cli import main

if __name__ == "__main__":
    main()
