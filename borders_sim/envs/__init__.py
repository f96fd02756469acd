"""PettingZoo and gymnasium envs over the rules kernels: empty until a later issue."""
