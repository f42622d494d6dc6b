"""Send records to the server in batches."""

from batching import batches


def upload(records, send, batch_size=100):
    """Call send(batch) for each batch of records; return how many records were sent."""
    sent = 0
    for batch in batches(records, batch_size):
        send(batch)
        sent += len(batch)
    return sent
