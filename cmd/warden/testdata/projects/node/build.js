const fs = require('fs');
fs.mkdirSync('dist', { recursive: true });
fs.writeFileSync('dist/add.js', fs.readFileSync('src/add.js', 'utf8'));
console.log('built dist/add.js');
