def total(items):
    result = 0
    for item in items:
        if item.price:
            result += item.price
    return result
