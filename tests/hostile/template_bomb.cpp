// Doubles a type list at every step: the compiler's time and memory grow as 2^N.
template <class... T> struct List {};

template <int N, class... T> struct Grow {
    using type = typename Grow<N - 1, T..., T...>::type;
};

template <class... T> struct Grow<0, T...> {
    using type = List<T...>;
};

using Huge = Grow<40, int>::type;
Huge make() { return Huge{}; }

int main() { return 0; }
