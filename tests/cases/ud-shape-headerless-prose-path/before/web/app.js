const express = require('express');
const app = express();

function formatPrice(p) {
  return '$' + p.toFixed(2);
}

function listItems(req, res) {
  const items = req.store.items();
  res.json(items.map(i => ({ name: i.name, price: formatPrice(i.price) })));
}

function getItem(req, res) {
  const item = req.store.get(req.params.id);
  if (!item) {
    res.status(404).json({ error: 'not found' });
    return;
  }
  res.json(item);
}

app.get('/items', listItems);
app.get('/items/:id', getItem);

module.exports = app;
