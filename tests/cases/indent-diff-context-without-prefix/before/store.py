class Store:
    def value(self):
        total = 0
        for item in self.items.values():
            total += item.total()
        return total
