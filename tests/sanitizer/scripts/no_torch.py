"""A script that never touches torch."""
print(sum(range(10)))
