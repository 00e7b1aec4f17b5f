def greet(name):
    return 'hi ' + name


def shout(name):
    return greet(name).upper()
