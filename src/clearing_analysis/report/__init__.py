"""Report stage: serialization and human-readable views. Reads every earlier stage, read by none."""
