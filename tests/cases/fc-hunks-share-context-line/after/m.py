def a():
    return 10
def b():
    return 20
