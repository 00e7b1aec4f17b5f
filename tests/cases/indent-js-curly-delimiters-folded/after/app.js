function formatPrice(p) {
  if (p == null) return 'n/a'; // it’s “missing”
  return '$' + p.toFixed(2);
}

const note = "It’s “free”";
