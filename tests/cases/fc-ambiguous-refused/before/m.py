def a():
    return None

def b():
    return None
