def a():
    return 'A'


def a2():
    return 'a2'
