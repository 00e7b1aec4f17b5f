def b():
    return 'b'


def b2():
    return 'b2'
