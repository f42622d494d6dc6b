"""Stock items and the inventory file they are read from."""

import json
from dataclasses import dataclass


@dataclass
class Item:
    sku: str
    name: str
    quantity: int
    price: float  # per unit


def load_items(path):
    """Read items from a JSON file holding a list of objects."""
    with open(path, encoding="utf-8") as f:
        return [Item(**row) for row in json.load(f)]


def total_value(items):
    """What the stock is worth, rounded to cents."""
    return round(sum(item.quantity * item.price for item in items), 2)
