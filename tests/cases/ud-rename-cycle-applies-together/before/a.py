def a():
    return 'a'


def a2():
    return 'a2'
