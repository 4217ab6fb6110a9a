"""`python -m fieldstudio` runs fieldstudio as the ``fieldstudio`` command does."""

from fieldstudio.launch import main

if __name__ == "__main__":
    main()
