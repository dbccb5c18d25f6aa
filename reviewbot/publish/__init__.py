"""A finished review prepared for a forge, forge-neutral: where each finding goes (placement),
the markdown people read (body, suggestion), the check's annotations and conclusion, which
earlier findings resolve, and the sanitizer every posted string passes. The GitHub writer
that posts them is `reviewbot.github.publisher`; local formats are `reviewbot.output`."""
