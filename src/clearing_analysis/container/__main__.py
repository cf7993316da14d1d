"""`python -m clearing_analysis.container ARGS`: the image's entrypoint (see `entrypoint`)."""

from clearing_analysis.container.entrypoint import main

if __name__ == "__main__":
    main()
