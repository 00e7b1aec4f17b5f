def c():
    return 'c'


def c2():
    return 'c2'
