import json

DEFAULT_PATH = "inventory.json"
