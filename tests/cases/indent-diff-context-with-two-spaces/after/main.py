def main():
    pass


if __name__ == "__main__":
    import sys
    main()
