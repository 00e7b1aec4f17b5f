def helper():
    return 1


helper()
helper()
