def restock(
    warehouse,
    name,
    qty=10,
):
    item = warehouse.items.get(name)
    if item is None:
        raise KeyError(name)
    item.qty += qty
    return item


def helper(x):
    if x is None:
        return None
    return x
