import logging


class Warehouse:
    """A warehouse holding items."""

    def __init__(self, name):
        self.name = name
        self.items = {}

    def remove(self, name, qty=1):
        item = self.items.get(name)
        if item is None:
            raise KeyError(name)
        item.qty -= qty

    def value(self):
        return sum(i.qty for i in self.items.values())

    def load(self):
        pass


def main():
    w = Warehouse("main")
    w.load()
    print(w.value())


if __name__ == "__main__":
    main()
