"""A small seeded generator of fictional people, with deliberate look-alikes.

Real front offices mix up patients whose names differ by one letter, who share a surname,
or who share a full name and differ only by date of birth; the world reproduces all three.
"""

from __future__ import annotations

import random

FEMALE = [
    "Amelia",
    "Anne",
    "Beatrice",
    "Brenda",
    "Carla",
    "Catherine",
    "Claire",
    "Danielle",
    "Diana",
    "Elena",
    "Emily",
    "Fiona",
    "Gloria",
    "Hannah",
    "Irene",
    "Julia",
    "Karen",
    "Katherine",
    "Laura",
    "Lena",
    "Maria",
    "Megan",
    "Nadia",
    "Olivia",
    "Paula",
    "Rachel",
    "Rosa",
    "Sarah",
    "Sara",
    "Teresa",
    "Valerie",
    "Yolanda",
]
MALE = [
    "Aaron",
    "Alan",
    "Allen",
    "Andre",
    "Brian",
    "Bryan",
    "Carlos",
    "Daniel",
    "Derek",
    "Eduardo",
    "Felix",
    "George",
    "Henry",
    "Isaac",
    "Jon",
    "John",
    "Kevin",
    "Luis",
    "Marc",
    "Mark",
    "Martin",
    "Nathan",
    "Omar",
    "Peter",
    "Raymond",
    "Samuel",
    "Stephen",
    "Steven",
    "Thomas",
    "Victor",
    "Walter",
]
SURNAMES = [
    "Abernathy",
    "Alvarez",
    "Bishop",
    "Castillo",
    "Chen",
    "Delgado",
    "Ellison",
    "Farrow",
    "Fitzgerald",
    "Gallagher",
    "Haddad",
    "Hollis",
    "Ibarra",
    "Jensen",
    "Kowalski",
    "Lindqvist",
    "Marsh",
    "Nakamura",
    "Okafor",
    "Pacheco",
    "Quintero",
    "Ramsey",
    "Salazar",
    "Sorensen",
    "Tanaka",
    "Underwood",
    "Varga",
    "Whitfield",
    "Yamada",
    "Zeller",
]

# One-letter or one-sound differences a hurried reader confuses.
LOOKALIKE_FIRST: tuple[tuple[str, str, str], ...] = (
    ("Jon", "John", "M"),
    ("Katherine", "Catherine", "F"),
    ("Steven", "Stephen", "M"),
    ("Sara", "Sarah", "F"),
    ("Brian", "Bryan", "M"),
    ("Alan", "Allen", "M"),
    ("Marc", "Mark", "M"),
)
LOOKALIKE_LAST: tuple[tuple[str, str], ...] = (
    ("Thompson", "Thomson"),
    ("Petersen", "Peterson"),
    ("Reid", "Reed"),
    ("Gray", "Grey"),
    ("Meyer", "Meier"),
)


def person(rng: random.Random) -> tuple[str, str, str]:
    """A (first, last, sex) triple from the plain pools."""
    sex = rng.choice("FM")
    first = rng.choice(FEMALE if sex == "F" else MALE)
    return first, rng.choice(SURNAMES), sex
