mod hash;
mod oracle;
