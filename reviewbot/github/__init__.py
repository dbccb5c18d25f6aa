"""GitHub, the first forge: client, REST, answers, readers, events, admission, writers."""
