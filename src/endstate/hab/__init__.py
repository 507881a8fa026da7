"""The HealthAdminBench portals as an environment: build the benchmark's own Next.js app from a
user's checkout, serve it on loopback, and read back the state its pages keep.

The app is never shipped with endstate: `build` copies the user's checkout into a cache keyed by
its source hash and builds it there (`npm ci`, `next build`); `server` runs `next start` on a
free loopback port for as many episodes as a run needs.
"""
