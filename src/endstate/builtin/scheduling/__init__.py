"""The scheduling lab's case corpus: starter cards, the generator and validation."""
