"""Inventory management module."""
import os
import json
from dataclasses import dataclass


DEFAULT_PATH = "inventory.json"


@dataclass
class Item:
    name: str
    qty: int = 0
    price: float = 0.0

    def total(self):
        return self.qty * self.price


class Warehouse:
    """A warehouse holding items."""

    def __init__(self, name):
        self.name = name
        self.items = {}

    def add(self, item):
        if item.name in self.items:
            self.items[item.name].qty += item.qty
        else:
            self.items[item.name] = item
        return self.items[item.name]

    def remove(self, name, qty=1):
        item = self.items.get(name)
        if item is None:
            raise KeyError(name)
        item.qty -= qty
        if item.qty <= 0:
            del self.items[name]

    def value(self):
        total = 0
        for item in self.items.values():
            total += item.total()
        return total

    def load(self, path=DEFAULT_PATH):
        def parse(entry):
            return Item(entry["name"], entry.get("qty", 0), entry.get("price", 0.0))

        with open(path) as f:
            data = json.load(f)
        for entry in data:
            self.add(parse(entry))

    def save(self, path=DEFAULT_PATH):
        data = [vars(i) for i in self.items.values()]
        with open(path, "w") as f:
            json.dump(data, f, indent=2)


class Store:
    """A store holding items."""

    def __init__(self, name):
        self.name = name
        self.items = {}

    def add(self, item):
        if item.name in self.items:
            self.items[item.name].qty += item.qty
        else:
            self.items[item.name] = item
        return self.items[item.name]

    def remove(self, name, qty=1):
        item = self.items.get(name)
        if item is None:
            raise KeyError(name)
        item.qty -= qty
        if item.qty <= 0:
            del self.items[name]

    def value(self):
        total = 0
        for item in self.items.values():
            total += item.total()
        return total

    def load(self, path=DEFAULT_PATH):
        def parse(entry):
            return Item(entry["name"], entry.get("qty", 0), entry.get("price", 0.0))

        with open(path) as f:
            data = json.load(f)
        for entry in data:
            self.add(parse(entry))

    def save(self, path=DEFAULT_PATH):
        data = [vars(i) for i in self.items.values()]
        with open(path, "w") as f:
            json.dump(data, f, indent=2)


def helper_0(x):
    """Helper number 0."""
    if x is None:
        return None
    return x + 0


def helper_1(x):
    """Helper number 1."""
    if x is None:
        return None
    return x + 1


def helper_2(x):
    """Helper number 2."""
    if x is None:
        return None
    return x + 2


def helper_3(x):
    """Helper number 3."""
    if x is None:
        return None
    return x + 3


def helper_4(x):
    """Helper number 4."""
    if x is None:
        return None
    return x + 4


def helper_5(x):
    """Helper number 5."""
    if x is None:
        return None
    return x + 5


def helper_6(x):
    """Helper number 6."""
    if x is None:
        return None
    return x + 6


def helper_7(x):
    """Helper number 7."""
    if x is None:
        return None
    return x + 7


def helper_8(x):
    """Helper number 8."""
    if x is None:
        return None
    return x + 8


def helper_9(x):
    """Helper number 9."""
    if x is None:
        return None
    return x + 9


def helper_10(x):
    """Helper number 10."""
    if x is None:
        return None
    return x + 10


def helper_11(x):
    """Helper number 11."""
    if x is None:
        return None
    return x + 11


def helper_12(x):
    """Helper number 12."""
    if x is None:
        return None
    return x + 12


def helper_13(x):
    """Helper number 13."""
    if x is None:
        return None
    return x + 13


def helper_14(x):
    """Helper number 14."""
    if x is None:
        return None
    return x + 14


def helper_15(x):
    """Helper number 15."""
    if x is None:
        return None
    return x + 15


def helper_16(x):
    """Helper number 16."""
    if x is None:
        return None
    return x + 16


def helper_17(x):
    """Helper number 17."""
    if x is None:
        return None
    return x + 17


def helper_18(x):
    """Helper number 18."""
    if x is None:
        return None
    return x + 18


def helper_19(x):
    """Helper number 19."""
    if x is None:
        return None
    return x + 19


def helper_20(x):
    """Helper number 20."""
    if x is None:
        return None
    return x + 20


def helper_21(x):
    """Helper number 21."""
    if x is None:
        return None
    return x + 21


def helper_22(x):
    """Helper number 22."""
    if x is None:
        return None
    return x + 22


def helper_23(x):
    """Helper number 23."""
    if x is None:
        return None
    return x + 23


def helper_24(x):
    """Helper number 24."""
    if x is None:
        return None
    return x + 24


def helper_25(x):
    """Helper number 25."""
    if x is None:
        return None
    return x + 25


def helper_26(x):
    """Helper number 26."""
    if x is None:
        return None
    return x + 26


def helper_27(x):
    """Helper number 27."""
    if x is None:
        return None
    return x + 27


def helper_28(x):
    """Helper number 28."""
    if x is None:
        return None
    return x + 28


def helper_29(x):
    """Helper number 29."""
    if x is None:
        return None
    return x + 29


def main():
    w = Warehouse("main")
    w.load()
    print(w.value())


if __name__ == "__main__":
    main()
