"""Where bot programs run: the bubblewrap command with its rlimits, cgroups, seccomp filter and uid
slots (``bubblewrap``), read-only copies of bot folders on a tmpfs (``staging``), the cgroup that
keeps the kernel's freezer on (``freezer_anchor``)."""
