"""The IR every front end builds and every later stage reads: operations, regions, blocks,
values, types, attributes, every node spanned; and the op catalog."""
