def hello(name):
    return 'hi ' + name


def shout(name):
    return hello(name).upper()
