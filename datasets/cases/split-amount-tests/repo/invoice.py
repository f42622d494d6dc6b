"""Invoices shared between several people."""

from billing import format_cents, split_amount


def shares(total_cents, people):
    """Each person's share as a "12.34" string, in the order the people are given."""
    amounts = split_amount(total_cents, len(people))
    return {person: format_cents(amount) for person, amount in zip(people, amounts)}
