package dynamocoord_test

import (
	"context"
	"fmt"
	"log"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/dynamocoord"
)

// Open a driver on a table configured by the AWS chain (here with a
// local endpoint), check the table, and take a lease through coord.New.
func Example() {
	ctx := context.Background()
	d, err := dynamocoord.Open(ctx, "fence-leases", &dynamocoord.OpenOptions{
		Endpoint: "http://127.0.0.1:8000",
		Region:   "us-east-1",
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := d.CheckTable(ctx); err != nil {
		log.Fatal(err) // for example ErrTableNotFound: run `fence init`
	}
	c := coord.New(d)
	l, err := c.TakeLease(ctx, "reports/monthly", &coord.TakeOptions{Holder: "worker-1"})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Release(ctx, l)
	fmt.Println("token", l.Token) // attach it to every protected write
}
