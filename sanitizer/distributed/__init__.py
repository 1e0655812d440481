"""The sanitizer under torchrun: this rank's place (`ranks`), the replica
fingerprints (`replicas`) traded through the c10d store (`exchange`), and the
`merge` of per-rank reports into one verdict."""
