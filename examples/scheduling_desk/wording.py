"""Reading a desk request as a person at the front desk would: who (a name, perhaps only as it
was heard, and a date of birth in any of the usual forms), with which doctor, when (a weekday
and a date, or a day said relative to today, and a time with or without am/pm) and what to do.
Nothing here knows the cases; it knows English dates and clinic hours."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, timedelta

MONTHS = [
    *("january", "february", "march", "april", "may", "june"),
    *("july", "august", "september", "october", "november", "december"),
]
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
MONTH = r"(?P<month>" + "|".join(m.capitalize() for m in MONTHS) + r")"
ISO = r"(?P<iso>\d{4}-\d{2}-\d{2})"
SPELLED = MONTH + r"\.? (?P<day>\d{1,2})(?:st|nd|rd|th)?,? (?P<year>\d{4})"
DOB = re.compile(
    r"(?:\bborn(?: on)?|\bDOB:?|\bdate of birth(?: is)?:?|\bd\.o\.b\.:?)\s+"
    + f"(?:{ISO}|{SPELLED})",
    re.IGNORECASE,
)
DAY = re.compile(
    r"\b(?:(?P<wd>" + "|".join(WEEKDAYS) + r"),? )?"
    r"(?:" + MONTH + r" (?P<mday>\d{1,2})(?:st|nd|rd|th)?\b(?!:)(?:,? (?P<myear>\d{4}))?"
    r"|(?P<iso>\d{4}-\d{2}-\d{2}))",
    re.IGNORECASE,
)
RELATIVE = re.compile(
    r"\b(?:(?P<word>today|tomorrow)|(?:(?P<which>this|next|on|coming)\s+)?(?P<wd>"
    + "|".join(WEEKDAYS)
    + r"))\b",
    re.IGNORECASE,
)
TIME = re.compile(
    r"(?<![\d:-])(?P<h>\d{1,2})(?::(?P<m>\d{2}))?\s*"
    r"(?P<half>(?:a\.?m\.?|p\.?m\.?)(?![a-z])|o'clock|in the morning|in the afternoon"
    r"|in the evening)?(?![\d-])",
    re.IGNORECASE,
)
TITLES = re.compile(r"^(?:Mr|Mrs|Ms|Miss|Mx|Dr)\.?\s+")
OPENINGS = re.compile(
    r"^(?:(?:A|The) (?:caller|patient|man|woman)(?: who gave the name| named| called)?"
    r"|(?:Please )?(?:book|cancel|reschedule|move|schedule)(?: an appointment for)?)\s+",
    re.IGNORECASE,
)
DOCTOR = re.compile(r"\bDr\.? (?P<name>[A-Z][\w'-]+(?: [A-Z][\w'-]+)?)")


@dataclass(frozen=True)
class Moment:
    """A day and perhaps a time named in the text, where it was named."""

    at: int
    day: date | None
    time: str | None  # HH:MM, 24-hour


@dataclass
class Request:
    action: str  # book | reschedule | cancel | lookup
    name_words: list[str]
    dob: str | None
    doctor: str | None
    moments: list[Moment] = field(default_factory=list)
    first_opening: bool = False  # "offer the first slot of the day"
    message: bool = False
    channel: str = "sms"


def dob_in(text: str) -> str | None:
    """A date of birth said in the text (`born 1956-03-08`, `DOB 1956-03-08`, `born March 8,
    1956`, `date of birth March 8, 1956`), as YYYY-MM-DD; or a bare date in a reply."""
    found = DOB.search(text)
    if found is None:
        found = re.search(r"(?:" + ISO + "|" + SPELLED + ")", text, re.IGNORECASE)
    if found is None:
        return None
    if found["iso"]:
        return str(found["iso"])
    month = MONTHS.index(found["month"].lower()) + 1
    return f"{int(found['year']):04d}-{month:02d}-{int(found['day']):02d}"


def name_words(text: str) -> list[str]:
    """The words of the patient's name as the request opens with it, without the spellings
    the desk was unsure of (`Diana Thompson or Thomson` -> `Diana`)."""
    head = OPENINGS.sub("", text.strip())
    head = TITLES.sub("", head)
    tokens: list[str] = []
    for raw in head.split():
        if raw.startswith("("):  # `(born ...)`, `(DOB ...)`: the name has ended
            break
        word = raw.strip(",.;:()")
        if word == "or" or (word[:1].isupper() and re.fullmatch(r"[A-Z][\w'-]*", word)):
            tokens.append(word)
        else:
            break
        if raw != word and not raw.endswith("."):  # a comma or a bracket ends the name
            break
        if raw.endswith(".") and len(word) > 3:
            break
    drop = set()
    for i, word in enumerate(tokens):
        if word == "or":
            drop |= {i - 1, i, i + 1}
    words = [w for i, w in enumerate(tokens) if i not in drop]
    return words or [w for w in tokens if w != "or"][:1]


def clock(h: int, m: int, half: str | None, context: str = "") -> str | None:
    """A time as the clinic books it, HH:MM; without am/pm, the hour inside clinic hours
    (08:00 to 17:00): 8-11 are mornings, 1-7 afternoons."""
    if h > 23 or m > 59:
        return None
    half = (half or "").lower().replace(".", "")
    if half.startswith("p") or "afternoon" in half or "evening" in half:
        h = h + 12 if h < 12 else h
    elif half.startswith("a") or "morning" in half:
        h = 0 if h == 12 else h
    elif h < 8 or (h < 12 and "afternoon" in context.lower()):
        h += 12
    return f"{h:02d}:{m:02d}"


def times_in(text: str) -> list[tuple[int, str]]:
    """Every clock time said in the text, with where: `1:15 pm`, `8 am`, `3 in the afternoon`,
    `13:40`, `at 11:30` (a bare number counts only with a colon or am/pm)."""
    found = []
    for t in TIME.finditer(text):
        if t["m"] is None and t["half"] is None:
            continue
        before = text[max(0, t.start() - 30) : t.start()]
        at = clock(int(t["h"]), int(t["m"] or 0), t["half"], before)
        if at is not None:
            found.append((t.start(), at))
    return found


def days_in(text: str, today: date) -> list[tuple[int, int, date]]:
    """Every day said in the text, with its span: a date (`Wednesday, March 4`, `2026-03-04`)
    or a day relative to today (`tomorrow`, `this Thursday`, `next Monday`)."""
    found: list[tuple[int, int, date]] = []
    for d in DAY.finditer(text):
        if d["iso"]:
            day = date.fromisoformat(d["iso"])
        else:
            month = MONTHS.index(d["month"].lower()) + 1
            year = int(d["myear"]) if d["myear"] else today.year
            try:
                day = date(year, month, int(d["mday"]))
            except ValueError:
                continue
            if not d["myear"] and day < today - timedelta(days=31):
                day = date(year + 1, month, int(d["mday"]))
        found.append((d.start(), d.end(), day))
    taken = [(s, e) for s, e, _ in found]
    for r in RELATIVE.finditer(text):
        if any(s <= r.start("wd" if r["wd"] else "word") < e for s, e in taken):
            continue
        if r["word"]:
            day = today + timedelta(days=0 if r["word"].lower() == "today" else 1)
        else:
            want = WEEKDAYS.index(r["wd"].lower())
            monday = today - timedelta(days=today.weekday())
            which = (r["which"] or "").lower()
            if which == "next":
                day = monday + timedelta(days=7 + want)
            else:
                day = monday + timedelta(days=want)
                if day <= today:
                    day += timedelta(days=7)
        found.append((r.start(), r.end(), day))
    return sorted(found)


def moments_in(text: str, today: date) -> list[Moment]:
    """The days and times said, in order: each time belongs to the day said before it in the
    same stretch; a time said before any day belongs to no day (`make it 10:00 instead`);
    `at the same time` repeats the time said before."""
    days = days_in(text, today)
    times = times_in(text)
    moments: list[Moment] = []
    used: set[int] = set()
    for i, (start, end, day) in enumerate(days):
        upto = days[i + 1][0] if i + 1 < len(days) else len(text)
        at = next((t for pos, t in times if end <= pos < upto and pos not in used), None)
        for pos, t in times:
            if t == at and end <= pos < upto:
                used.add(pos)
                break
        if at is None and "same time" in text[end:upto] and moments:
            at = next((m.time for m in reversed(moments) if m.time), None)
        moments.append(Moment(start, day, at))
    for pos, t in times:
        if pos not in used and not any(s <= pos < e for s, e, _ in days):
            moments.append(Moment(pos, None, t))
    return sorted(moments, key=lambda m: m.at)


def action_of(text: str, lookup: bool) -> str:
    low = text.lower()
    if lookup:
        return "lookup"
    if re.search(
        r"\breschedul|\bmove (?:it|the|her|his|their)\b|\bmoved to\b"
        r"|\bpush(?:ed)? (?:it |back )?to\b|\bpushed\b"
        r"|\bcannot make\b|\bcan't make\b|\bchange (?:it|the time) to\b",
        low,
    ):
        return "reschedule"
    if re.search(r"\bcancel", low):
        return "cancel"
    return "book"


def channel_of(text: str) -> str:
    low = text.lower()
    if re.search(r"\be-?mail", low):
        return "email"
    if re.search(r"\bportal\b", low):
        return "portal"
    return "sms"


def read_request(text: str, today: date, lookup: bool) -> Request:
    """The request in `text`, with days resolved against `today`."""
    dob = dob_in(text) if DOB.search(text) else None
    plain = DOB.sub(" ", text)  # a birth date is no appointment date
    doctor = DOCTOR.search(plain)
    low = plain.lower()
    return Request(
        action=action_of(plain, lookup),
        name_words=name_words(text),
        dob=dob,
        doctor=doctor["name"] if doctor else None,
        moments=moments_in(plain, today),
        first_opening=bool(re.search(r"\b(?:first|earliest)\b[\w ]*\b(?:slot|opening)", low)),
        message=bool(
            re.search(
                r"\bmessage\b|\btext\b|\be-?mail\b|\bsms\b|\bportal\b|\bconfirmation note", low
            )
        ),
        channel=channel_of(plain),
    )
