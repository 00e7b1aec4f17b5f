def total(items):
    return sum(items)


def report(items):
    print(total(items))
