//! The builder of a client for another Polymarket host (Gamma, the Data API): the CLOB
//! client's transport pointed elsewhere, with the setters that make sense there.

/// Defines `ClientBuilder` for a `Client { http: clob::Client }` of another host: `host`,
/// `timeout`, `retry`, `user_agent`, `proxy`, `no_proxy`, `build`, `Default`. `$name` is the
/// service's name in the docs, `$host` its default URL (the module's `DEFAULT_HOST`, repeated
/// for the docs).
macro_rules! host_client_builder {
    ($name:literal, $host:literal) => {
        #[doc = concat!("Builds a ", $name, " [`Client`]. Setters are infallible and state their default.")]
        #[derive(Debug)]
        #[must_use]
        pub struct ClientBuilder {
            inner: crate::clob::ClientBuilder,
        }

        impl ClientBuilder {
            /// A builder with every default.
            pub fn new() -> Self {
                Self {
                    inner: crate::clob::Client::builder().host(DEFAULT_HOST),
                }
            }

            #[doc = concat!("The base URL (a trailing `/` is removed). Default is `", $host, "`.")]
            pub fn host(mut self, host: impl Into<String>) -> Self {
                self.inner = self.inner.host(host);
                self
            }

            /// Deadline of one attempt. Default is 10 s.
            pub fn timeout(mut self, timeout: impl Into<Option<std::time::Duration>>) -> Self {
                self.inner = self.inner.timeout(timeout);
                self
            }

            #[doc = concat!("Retry policy (every ", $name, " request is idempotent). Default is [`RetryPolicy::default`](crate::clob::RetryPolicy::default).")]
            pub fn retry(mut self, policy: crate::clob::RetryPolicy) -> Self {
                self.inner = self.inner.retry(policy);
                self
            }

            /// The `User-Agent` header. Default is `polyclob/<version>`.
            pub fn user_agent(mut self, ua: impl Into<String>) -> Self {
                self.inner = self.inner.user_agent(ua);
                self
            }

            /// Every request through `proxy` (loopback hosts too). Default is the proxy
            /// environment variables ([`Proxy`](crate::clob::Proxy#where-it-applies)).
            pub fn proxy(mut self, proxy: crate::clob::Proxy) -> Self {
                self.inner = self.inner.proxy(proxy);
                self
            }

            /// Never a proxy, whatever the environment says. Default is the proxy
            /// environment variables ([`Proxy`](crate::clob::Proxy#where-it-applies)).
            pub fn no_proxy(mut self) -> Self {
                self.inner = self.inner.no_proxy();
                self
            }

            /// Builds the client.
            ///
            /// # Errors
            /// As [`clob::ClientBuilder::build`](crate::clob::ClientBuilder::build).
            pub fn build(self) -> Result<Client, crate::clob::Error> {
                Ok(Client {
                    http: self.inner.build()?,
                })
            }
        }

        impl Default for ClientBuilder {
            fn default() -> Self {
                Self::new()
            }
        }
    };
}

pub(crate) use host_client_builder;
