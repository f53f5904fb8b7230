#pragma once

static inline int clamp_index(int i, int n) {
    return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

int declared_only(int n);
