"""Tests of errand grading: answers, answer matching, write legs on the delta (a package,
so its modules never shadow another folder's)."""
