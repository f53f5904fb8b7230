"""perfalign's training package: preference data, trainers, GGUF export and evaluation."""
