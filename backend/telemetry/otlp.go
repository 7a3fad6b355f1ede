package telemetry

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"os/user"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/log"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"

	"github.com/warden-dev/warden/backend/config"
)

// scopeName is the instrumentation scope of every record and metric.
const scopeName = "github.com/warden-dev/warden/backend/telemetry"

// newResource describes this Warden per the semantic conventions.
func newResource(c config.Telemetry, version string) *resource.Resource {
	kv := []attribute.KeyValue{semconv.ServiceName("warden"), semconv.ServiceVersion(version)}
	if h, err := os.Hostname(); err == nil && h != "" {
		kv = append(kv, semconv.HostName(h))
	}
	if c.UserName {
		if u, err := user.Current(); err == nil && u.Username != "" {
			kv = append(kv, semconv.UserName(u.Username))
		}
	}
	return resource.NewWithAttributes(semconv.SchemaURL, kv...)
}

// tlsConfig is the client side of the connection to the collector: its
// CA, this machine's certificate for mTLS, or no verification at all when
// insecure is asked for explicitly.
func tlsConfig(c config.Telemetry) (*tls.Config, error) {
	if c.CAFile == "" && c.CertFile == "" && !c.Insecure {
		return nil, nil
	}
	t := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: c.Insecure}
	if c.CAFile != "" {
		pem, err := os.ReadFile(c.CAFile)
		if err != nil {
			return nil, fmt.Errorf("telemetry: ca_file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("telemetry: ca_file %s holds no PEM certificate", c.CAFile)
		}
		t.RootCAs = pool
	}
	if c.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(c.CertFile, c.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("telemetry: cert_file/key_file: %w", err)
		}
		t.Certificates = []tls.Certificate{cert}
	}
	return t, nil
}

// logPipe turns Records into SDK records (resource and scope attached by
// the SDK's own logger) and exports a batch through the OTLP/HTTP
// exporter, synchronously: its error is the collector's answer.
type logPipe struct {
	provider *sdklog.LoggerProvider
	logger   log.Logger
	cap      *capture
	exp      sdklog.Exporter
}

// capture is a Processor that keeps what the logger emits, for one batch.
type capture struct {
	mu   sync.Mutex
	recs []sdklog.Record
}

func (c *capture) Enabled(context.Context, sdklog.EnabledParameters) bool { return true }
func (c *capture) OnEmit(_ context.Context, r *sdklog.Record) error {
	c.mu.Lock()
	c.recs = append(c.recs, r.Clone())
	c.mu.Unlock()
	return nil
}
func (c *capture) Shutdown(context.Context) error   { return nil }
func (c *capture) ForceFlush(context.Context) error { return nil }

func (c *capture) take() []sdklog.Record {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.recs
	c.recs = nil
	return out
}

func newLogPipe(ctx context.Context, c config.Telemetry, res *resource.Resource, version string, timeout time.Duration) (*logPipe, error) {
	opts := []otlploghttp.Option{otlploghttp.WithEndpointURL(endpointURL(c.Endpoint, "/v1/logs")),
		otlploghttp.WithRetry(otlploghttp.RetryConfig{Enabled: false}), otlploghttp.WithTimeout(timeout),
		otlploghttp.WithCompression(otlploghttp.GzipCompression)}
	if len(c.Headers) > 0 {
		opts = append(opts, otlploghttp.WithHeaders(c.Headers))
	}
	tc, err := tlsConfig(c)
	if err != nil {
		return nil, err
	}
	if tc != nil {
		opts = append(opts, otlploghttp.WithTLSClientConfig(tc))
	}
	exp, err := otlploghttp.New(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("telemetry: OTLP log exporter: %w", err)
	}
	cp := &capture{}
	p := sdklog.NewLoggerProvider(sdklog.WithResource(res), sdklog.WithProcessor(cp))
	return &logPipe{provider: p, cap: cp, exp: exp, logger: p.Logger(scopeName, log.WithInstrumentationVersion(version))}, nil
}

// export sends recs as one OTLP request.
func (p *logPipe) export(ctx context.Context, recs []Record) error {
	p.cap.take()
	for _, r := range recs {
		var lr log.Record
		lr.SetTimestamp(r.Time)
		lr.SetObservedTimestamp(r.Time)
		lr.SetEventName(r.EventName)
		lr.SetSeverity(r.Severity)
		lr.SetSeverityText(r.Severity.String())
		lr.SetBody(attribute.StringValue(r.Body))
		lr.AddAttributes(r.Attrs...)
		p.logger.Emit(ctx, lr)
	}
	return p.exp.Export(ctx, p.cap.take())
}

func (p *logPipe) shutdown(ctx context.Context) error {
	return errors.Join(p.provider.Shutdown(ctx), p.exp.Shutdown(ctx))
}

// newMeterProvider sends the metrics (metrics.go) every interval.
func newMeterProvider(ctx context.Context, c config.Telemetry, res *resource.Resource, timeout time.Duration) (*sdkmetric.MeterProvider, error) {
	opts := []otlpmetrichttp.Option{otlpmetrichttp.WithEndpointURL(endpointURL(c.Endpoint, "/v1/metrics")),
		otlpmetrichttp.WithTimeout(timeout), otlpmetrichttp.WithCompression(otlpmetrichttp.GzipCompression)}
	if len(c.Headers) > 0 {
		opts = append(opts, otlpmetrichttp.WithHeaders(c.Headers))
	}
	tc, err := tlsConfig(c)
	if err != nil {
		return nil, err
	}
	if tc != nil {
		opts = append(opts, otlpmetrichttp.WithTLSClientConfig(tc))
	}
	exp, err := otlpmetrichttp.New(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("telemetry: OTLP metric exporter: %w", err)
	}
	return sdkmetric.NewMeterProvider(sdkmetric.WithResource(res),
		sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp, sdkmetric.WithInterval(c.MetricsInterval)))), nil
}

// endpointURL is the signal's URL under the configured base, as the OTLP
// exporter specification builds it from OTEL_EXPORTER_OTLP_ENDPOINT.
func endpointURL(base, path string) string {
	return strings.TrimSuffix(base, "/") + path
}

// errorWords says why a send failed in words an administrator can act on.
func errorWords(endpoint string, err error) string {
	if err == nil {
		return ""
	}
	msg := err.Error()
	var nerr net.Error
	var uerr x509.UnknownAuthorityError
	var herr x509.HostnameError
	var cerr *tls.CertificateVerificationError
	switch {
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &nerr) && nerr.Timeout()):
		return fmt.Sprintf("the collector at %s did not answer in time", endpoint)
	case strings.Contains(msg, "connection refused"):
		return fmt.Sprintf("the collector at %s is not reachable: connection refused (is it running?)", endpoint)
	case strings.Contains(msg, "no such host"):
		return fmt.Sprintf("the collector's host in %s does not resolve", endpoint)
	case errors.As(err, &uerr), errors.As(err, &herr), errors.As(err, &cerr), strings.Contains(msg, "x509:"), strings.Contains(msg, "tls:"):
		return fmt.Sprintf("TLS with the collector at %s failed (check ca_file, cert_file, key_file): %s", endpoint, msg)
	case strings.Contains(msg, "401"), strings.Contains(msg, "403"):
		return fmt.Sprintf("the collector at %s refused this machine's credentials (check [telemetry] headers): %s", endpoint, msg)
	case strings.Contains(msg, "404"):
		return fmt.Sprintf("the collector at %s has no OTLP/HTTP logs endpoint (/v1/logs); is the endpoint the OTLP/HTTP port (4318)?: %s", endpoint, msg)
	}
	return fmt.Sprintf("sending to %s failed: %s", endpoint, msg)
}
