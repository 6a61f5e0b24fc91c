mod hash;
mod oracle;
mod v2;
