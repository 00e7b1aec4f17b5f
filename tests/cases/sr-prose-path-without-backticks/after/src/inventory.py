import json

DEFAULT_PATH = "data/inventory.json"
