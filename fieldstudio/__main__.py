"""`python -m fieldstudio` runs the command line."""

from fieldstudio.cli import main

if __name__ == "__main__":
    main()
