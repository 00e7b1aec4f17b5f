def total(items, skip_none=True):
    if skip_none:
        items = [i for i in items if i is not None]
    return sum(items)


def report(items):
    print(total(items))
