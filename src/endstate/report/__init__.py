"""Reports: summaries of task records, the nine disclosure items, text rendering."""
