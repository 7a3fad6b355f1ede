module.exports = "tiny-pkg served through warden's proxy";
