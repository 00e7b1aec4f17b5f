function formatPrice(p) {
  return '$' + p.toFixed(2);
}

const note = "It’s “free”";
