"""Go's sort.Sort (pattern-defeating quicksort, Go 1.19+), so that --sort-by orders ties
exactly as kubectl does: the algorithm is not stable, and a learner sees its order."""

from __future__ import annotations

from collections.abc import Callable

Less = Callable[[int, int], bool]
Swap = Callable[[int, int], None]

_MASK = (1 << 64) - 1


def sort(n: int, less: Less, swap: Swap) -> None:
    if n <= 1:
        return
    _pdqsort(less, swap, 0, n, n.bit_length())


def _insertion(less: Less, swap: Swap, a: int, b: int) -> None:
    for i in range(a + 1, b):
        j = i
        while j > a and less(j, j - 1):
            swap(j, j - 1)
            j -= 1


def _sift_down(less: Less, swap: Swap, lo: int, hi: int, first: int) -> None:
    root = lo
    while True:
        child = 2 * root + 1
        if child >= hi:
            return
        if child + 1 < hi and less(first + child, first + child + 1):
            child += 1
        if not less(first + root, first + child):
            return
        swap(first + root, first + child)
        root = child


def _heap_sort(less: Less, swap: Swap, a: int, b: int) -> None:
    first, hi = a, b - a
    for i in range((hi - 1) // 2, -1, -1):
        _sift_down(less, swap, i, hi, first)
    for i in range(hi - 1, -1, -1):
        swap(first, first + i)
        _sift_down(less, swap, 0, i, first)


def _pdqsort(less: Less, swap: Swap, a: int, b: int, limit: int) -> None:
    balanced = partitioned = True
    while True:
        length = b - a
        if length <= 12:
            _insertion(less, swap, a, b)
            return
        if limit == 0:
            _heap_sort(less, swap, a, b)
            return
        if not balanced:
            _break_patterns(swap, a, b)
            limit -= 1
        pivot, hint = _choose_pivot(less, a, b)
        if hint == "decreasing":
            _reverse(swap, a, b)
            pivot = (b - 1) - (pivot - a)
            hint = "increasing"
        if (
            balanced
            and partitioned
            and hint == "increasing"
            and _partial_insertion(less, swap, a, b)
        ):
            return
        if a > 0 and not less(a - 1, pivot):
            a = _partition_equal(less, swap, a, b, pivot)
            continue
        mid, partitioned = _partition(less, swap, a, b, pivot)
        left, right = mid - a, b - mid
        threshold = length // 8
        if left < right:
            balanced = left >= threshold
            _pdqsort(less, swap, a, mid, limit)
            a = mid + 1
        else:
            balanced = right >= threshold
            _pdqsort(less, swap, mid + 1, b, limit)
            b = mid


def _partition(less: Less, swap: Swap, a: int, b: int, pivot: int) -> tuple[int, bool]:
    swap(a, pivot)
    i, j = a + 1, b - 1
    while i <= j and less(i, a):
        i += 1
    while i <= j and not less(j, a):
        j -= 1
    if i > j:
        swap(j, a)
        return j, True
    swap(i, j)
    i += 1
    j -= 1
    while True:
        while i <= j and less(i, a):
            i += 1
        while i <= j and not less(j, a):
            j -= 1
        if i > j:
            break
        swap(i, j)
        i += 1
        j -= 1
    swap(j, a)
    return j, False


def _partition_equal(less: Less, swap: Swap, a: int, b: int, pivot: int) -> int:
    swap(a, pivot)
    i, j = a + 1, b - 1
    while True:
        while i <= j and not less(a, i):
            i += 1
        while i <= j and less(a, j):
            j -= 1
        if i > j:
            break
        swap(i, j)
        i += 1
        j -= 1
    return i


def _partial_insertion(less: Less, swap: Swap, a: int, b: int) -> bool:
    i = a + 1
    for _ in range(5):
        while i < b and not less(i, i - 1):
            i += 1
        if i == b:
            return True
        if b - a < 50:
            return False
        swap(i, i - 1)
        if i - a >= 2:
            j = i - 1
            while j >= 1:
                if not less(j, j - 1):
                    break
                swap(j, j - 1)
                j -= 1
        if b - i >= 2:
            j = i + 1
            while j < b:
                if not less(j, j - 1):
                    break
                swap(j, j - 1)
                j += 1
    return False


def _break_patterns(swap: Swap, a: int, b: int) -> None:
    length = b - a
    if length >= 8:
        state = length
        modulus = 1 << length.bit_length()
        idx = a + (length // 4) * 2 - 1
        for i in range(3):
            state ^= (state << 13) & _MASK
            state ^= state >> 7
            state ^= (state << 17) & _MASK
            other = state & (modulus - 1)
            if other >= length:
                other -= length
            swap(idx + i, a + other)


def _choose_pivot(less: Less, a: int, b: int) -> tuple[int, str]:
    length = b - a
    swaps = [0]
    i, j, k = a + length // 4, a + length // 4 * 2, a + length // 4 * 3
    if length >= 8:
        if length >= 50:
            i = _median(less, i - 1, i, i + 1, swaps)
            j = _median(less, j - 1, j, j + 1, swaps)
            k = _median(less, k - 1, k, k + 1, swaps)
        j = _median(less, i, j, k, swaps)
    if swaps[0] == 0:
        return j, "increasing"
    if swaps[0] == 12:
        return j, "decreasing"
    return j, "unknown"


def _median(less: Less, a: int, b: int, c: int, swaps: list[int]) -> int:
    def order(x: int, y: int) -> tuple[int, int]:
        if less(y, x):
            swaps[0] += 1
            return y, x
        return x, y

    a, b = order(a, b)
    b, c = order(b, c)
    a, b = order(a, b)
    return b


def _reverse(swap: Swap, a: int, b: int) -> None:
    i, j = a, b - 1
    while i < j:
        swap(i, j)
        i += 1
        j -= 1
