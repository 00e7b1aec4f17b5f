def old_name():
    return 1
